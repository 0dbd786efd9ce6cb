"""The scheduler's plug-ins: the Falcon-frequency timetable, instance-order priority strategies, retry policy."""
