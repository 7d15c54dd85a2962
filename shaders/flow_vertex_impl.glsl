//VTK::Normal::Impl
flowPosition = flowCoord - (flowTime * flowSpeed + flowOffset);
flowAlarmLevel = flowAlarm;
