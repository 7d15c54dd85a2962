//VTK::Color::Impl
// Soft bands every 0.6 m that move with the coolant: brighter stripes over the base colour.
float flowBand = fract(flowPosition / 0.6);
float flowPulse = smoothstep(0.0, 0.12, flowBand) * (1.0 - smoothstep(0.35, 0.55, flowBand));
diffuseColor *= 0.72 + 0.55 * flowPulse;
ambientColor *= 0.72 + 0.55 * flowPulse;
// Pipes of racks in a cooling alarm flash red (critical) or amber (warning); flowFlash is a
// custom uniform toggled by the view.
if (flowAlarmLevel > 0.5 && flowFlash > 0.5) {
  diffuseColor = flowAlarmLevel > 1.5 ? vec3(1.0, 0.16, 0.16) : vec3(1.0, 0.72, 0.15);
  ambientColor = diffuseColor * 0.6;
}
