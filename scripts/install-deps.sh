#!/usr/bin/env bash
# Installs the Debian 12 packages floortwin needs to build, run and test.
# Works as root (CI) and through sudo for a normal user. Installs only what is missing.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  qt6-base-dev libqt6opengl6-dev libgl-dev libglx-dev
  libvtk9-dev libimgui-dev libstb-dev fonts-dejavu-core
  nlohmann-json3-dev libsqlite3-dev libzstd-dev zlib1g-dev libfmt-dev libmosquitto-dev
  libavcodec-dev libavformat-dev libavutil-dev libswscale-dev ffmpeg
  xvfb xauth libgl1-mesa-dri
  prometheus prometheus-alertmanager victoria-metrics mosquitto openssl clang libclang-rt-dev clang-format clang-tidy-16
  clang-16 libclang-rt-16-dev ccache python3
  slurmctld slurmd slurm-client munge
  xdg-utils desktop-file-utils
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [ "$(id -u)" -eq 0 ]; then
  sudo_cmd=()
else
  sudo_cmd=(sudo)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -q
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
