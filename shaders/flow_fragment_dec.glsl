//VTK::Normal::Dec
in float flowPosition;
in float flowAlarmLevel;
