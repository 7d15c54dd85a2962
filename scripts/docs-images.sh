#!/usr/bin/env bash
# Remakes every picture of the guides (docs/images/*.png) with the app itself, from the manifests
# beside them (docs/images/GUIDE.shots), so that the pictures can be refreshed after a change.
# Usage: scripts/docs-images.sh BUILD [GUIDE...]    (make docs-images; GUIDE: a manifest's stem)
# A manifest line is either
#   NAME.png ARGS...   run `floortwin --screenshot docs/images/NAME.png ARGS...`
#   ! COMMAND          a set-up step (a recording to replay, a floor to write), run by bash
# with $FT the floortwin binary and $WORK a scratch folder that lasts for the manifest; '#'
# starts a comment. A failing step or picture fails the run and names the manifest's line.
set -euo pipefail
# The pictures do not depend on what this user last chose (layers, metric, theme: QSettings).
XDG_CONFIG_HOME=$(mktemp -d)
export XDG_CONFIG_HOME
trap 'rm -rf "$XDG_CONFIG_HOME"' EXIT
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/docs-images.sh BUILD [GUIDE...]}
shift
FT=$(realpath "$build/bin/floortwin")
export FT
manifests=()
if [ $# -gt 0 ]; then
    for guide in "$@"; do manifests+=("docs/images/$guide.shots"); done
else
    manifests=(docs/images/*.shots)
fi
count=0
for manifest in "${manifests[@]}"; do
    [ -f "$manifest" ] || { echo "docs-images: $manifest: no such manifest" >&2; exit 1; }
    WORK=$(mktemp -d)
    export WORK
    number=0
    while IFS= read -r line || [ -n "$line" ]; do
        number=$((number + 1))
        line=${line%%#*}
        [ -z "${line// /}" ] && continue
        if [[ $line == '!'* ]]; then
            if ! bash -c "${line#!}" >"$WORK/step.log" 2>&1; then
                echo "docs-images: $manifest:$number: the step failed:" >&2
                cat "$WORK/step.log" >&2
                exit 1
            fi
            continue
        fi
        read -r name args <<<"$line"
        start=$SECONDS
        if ! eval "\"\$FT\" --screenshot \"docs/images/$name\" $args" >"$WORK/shot.log" 2>&1; then
            echo "docs-images: $manifest:$number: $name failed:" >&2
            cat "$WORK/shot.log" >&2
            exit 1
        fi
        count=$((count + 1))
        echo "docs-images: docs/images/$name ($((SECONDS - start)) s)"
    done <"$manifest"
    rm -rf "$WORK"
done
echo "docs-images: $count pictures"
