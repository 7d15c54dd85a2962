#!/usr/bin/env python3
"""Writes tests/data/netbox/dh3/: a NetBox API dump (the JSON pages of /api/dcim/sites/,
locations/, racks/, devices/ and the floor-plan plugin's floorplans/) of one data hall, DH3,
shaped after NetBox 4.x's serializers (brief nested objects, choice fields as {value, label},
DecimalFields as strings). The devices come in three pages linked by `next`; the second page
is written as NetBox 3.x would (device_role instead of role, no oob_ip). Row A: DH3-A01..A04;
row B: DH3-B01, B02 (staged), B04 (B03 is a gap) and B05 (planned, still empty). Each rack also
holds NVLink switch trays and a power shelf, which are not compute trays."""
import json, os

HOST = "http://netbox.example"
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dh3")
os.makedirs(out, exist_ok=True)

def brief(kind, id_, name, **extra):
    d = {"id": id_, "url": f"{HOST}/api/dcim/{kind}/{id_}/", "display": name, "name": name}
    d.update(extra)
    return d

def page(results, endpoint, offset, limit, total):
    nxt = f"{HOST}/api/{endpoint}/?limit={limit}&offset={offset + limit}" if offset + limit < total else None
    prev = f"{HOST}/api/{endpoint}/?limit={limit}&offset={max(0, offset - limit)}" if offset > 0 else None
    return {"count": total, "next": nxt, "previous": prev, "results": results}

def status(v):
    return {"value": v, "label": v.capitalize()}

site = brief("sites", 1, "ams1", slug="ams1")
sites = [dict(site, status=status("active"), region=None, facility="AMS1", time_zone="Europe/Amsterdam",
              custom_fields={}, tags=[])]
hall = brief("locations", 10, "DH3", slug="dh3", _depth=0)
rows = {"A": brief("locations", 11, "DH3 Row A", slug="dh3-row-a", _depth=1),
        "B": brief("locations", 12, "DH3 Row B", slug="dh3-row-b", _depth=1)}
locations = [dict(hall, site=site, parent=None, status=status("active"), custom_fields={}),
             dict(rows["A"], site=site, parent=hall, status=status("active"), custom_fields={}),
             dict(rows["B"], site=site, parent=hall, status=status("active"), custom_fields={})]

rack_plan = [("A", 1, "active", 8), ("A", 2, "active", 8), ("A", 3, "active", 8), ("A", 4, "active", 6),
             ("B", 1, "active", 4), ("B", 2, "active", 2), ("B", 4, "active", 8), ("B", 5, "planned", 0)]
racks, devices = [], []
next_device = 1000
uuid_n = 0
for i, (row, n, st, trays) in enumerate(rack_plan):
    rid = 200 + i
    name = f"DH3-{row}{n:02d}"
    racks.append(dict(brief("racks", rid, name), site=site, location=rows[row], status=status(st),
                      role={"id": 1, "name": "GPU rack", "slug": "gpu-rack"}, u_height=48,
                      facility_id=f"{row}{n:02d}", serial="", asset_tag=None,
                      custom_fields={}, tags=[]))
    rack_ref = brief("racks", rid, name)
    for t in range(trays):
        next_device += 1
        host = f"dh3-{row.lower()}{n:02d}-n{t + 1:02d}"
        dev_status = "staged" if name == "DH3-B02" else ("failed" if (name, t) == ("DH3-A04", 5) else "active")
        uuids = []
        if name == "DH3-A01":
            for g in range(4):
                uuid_n += 1
                uuids.append(f"GPU-{uuid_n:08x}-3c1e-4a5b-9d21-{(uuid_n * 7919) % 16**12:012x}")
        devices.append({
            "id": next_device, "url": f"{HOST}/api/dcim/devices/{next_device}/", "display": host, "name": host,
            "device_type": {"id": 3, "model": "Vera Rubin NVL72 compute tray", "slug": "vr-nvl72-compute",
                             "manufacturer": {"id": 1, "name": "NVIDIA", "slug": "nvidia"}},
            "role": {"id": 2, "name": "GPU compute tray", "slug": "gpu-compute-tray"},
            "serial": f"1330225{next_device:06d}", "asset_tag": None,
            "site": site, "location": rows[row], "rack": rack_ref,
            "position": f"{46 - 2 * t}.0" if t % 2 else 46.0 - 2 * t, "face": {"value": "front", "label": "Front"},
            "status": status(dev_status), "airflow": None,
            "primary_ip": None, "oob_ip": {"id": 5000 + next_device, "address": f"10.30.{i}.{t + 11}/24",
                                            "family": {"value": 4, "label": "IPv4"}},
            "custom_fields": {"gpu_uuids": ";".join(uuids) if uuids else None}, "tags": []})
    for s in range(2 if trays else 0):
        next_device += 1
        devices.append({"id": next_device, "name": f"{name.lower()}-nvsw{s + 1}",
                        "role": {"id": 3, "name": "NVLink switch tray", "slug": "nvlink-switch-tray"},
                        "site": site, "location": rows[row], "rack": rack_ref, "position": 20.0 - s,
                        "face": {"value": "front", "label": "Front"}, "status": status("active"),
                        "serial": "", "custom_fields": {}})
    if trays:
        next_device += 1
        devices.append({"id": next_device, "name": f"{name.lower()}-ps1",
                        "role": {"id": 4, "name": "Power shelf", "slug": "power-shelf"},
                        "site": site, "location": rows[row], "rack": rack_ref, "position": 2.0,
                        "face": {"value": "front", "label": "Front"}, "status": status("active"),
                        # the shelf's power management controller, a Redfish service
                        "oob_ip": {"id": 9000 + next_device, "address": f"10.30.{i}.200/24",
                                   "family": {"value": 4, "label": "IPv4"}},
                        "serial": "", "custom_fields": {}})
# An unracked spare, and a console server without a role.
next_device += 1
devices.append({"id": next_device, "name": "spare-tray-01", "role": {"id": 2, "name": "GPU compute tray", "slug": "gpu-compute-tray"},
                "site": site, "location": None, "rack": None, "position": None, "face": None,
                "status": status("inventory"), "serial": "SPARE1", "custom_fields": {}})

def write(name, obj):
    with open(os.path.join(out, name), "w") as f:
        json.dump(obj, f, indent=1)
        f.write("\n")

write("sites.json", page(sites, "dcim/sites", 0, 1000, len(sites)))
write("locations.json", page(locations, "dcim/locations", 0, 1000, len(locations)))
write("racks.json", page(racks, "dcim/racks", 0, 1000, len(racks)))
limit = (len(devices) + 2) // 3
for k in range(3):
    chunk = devices[k * limit:(k + 1) * limit]
    if k == 1:  # NetBox 3.x: device_role, no oob_ip
        chunk = [dict({kk: vv for kk, vv in d.items() if kk not in ("role", "oob_ip")},
                      device_role=d["role"]) for d in chunk]
    write(f"devices-{k + 1}.json", page(chunk, "dcim/devices", k * limit, limit, len(devices)))

# The floor plan: canvas units are 50 px per metre inside a boundary 1000 px (20 m) wide.
objects = [{"type": "rect", "left": 100, "top": 100, "width": 1000, "height": 500, "scaleX": 1, "scaleY": 1,
            "custom_meta": {"object_type": "floorplan_boundry"}}]
for i, (row, n, st, trays) in enumerate(rack_plan):
    x_m = 1.0 + 0.6 * (n - 1)
    y_m = 2.0 if row == "A" else 5.0
    objects.append({"type": "group", "left": 100 + 50 * x_m - 15, "top": 100 + 50 * y_m - 30,
                    "width": 30, "height": 60, "scaleX": 1, "scaleY": 1, "angle": 0,
                    "originX": "left", "originY": "top",
                    "custom_meta": {"object_type": "rack", "object_id": 200 + i, "object_name": f"DH3-{row}{n:02d}"},
                    "objects": [{"type": "i-text", "text": f"DH3-{row}{n:02d}", "custom_meta": {"text_type": "name"}}]})
write("floorplans.json", page([{"id": 1, "url": f"{HOST}/api/plugins/floorplan/floorplans/1/", "site": None,
                                "location": hall, "width": "20.00", "height": "10.00", "measurement_unit": "m",
                                "canvas": {"version": "5.3.0", "objects": objects}}],
                              "plugins/floorplan/floorplans", 0, 1000, 1))
