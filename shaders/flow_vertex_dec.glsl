//VTK::Normal::Dec
// Animated flow. Per vertex: distance along the pipe in the flow direction (m), the band speed
// (m/s, from the pipe's flow rate), an offset that keeps the bands continuous when the speed
// changes, and the pipe's alarm level. flowTime (s) is a custom uniform that VTK declares.
in float flowCoord;
in float flowSpeed;
in float flowOffset;
in float flowAlarm;
out float flowPosition;
out float flowAlarmLevel;
