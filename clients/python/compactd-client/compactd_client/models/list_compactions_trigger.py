from enum import StrEnum


class ListCompactionsTrigger(StrEnum):
    AGE_AND_TURNS = "age_and_turns"
    CACHE_COLD = "cache_cold"
    CONTEXT_PRESSURE = "context_pressure"
    EMERGENCY = "emergency"
    HARNESS = "harness"
    IDLE_CACHE_EXPIRY = "idle_cache_expiry"
    LONG_AWAY = "long_away"
    MANUAL = "manual"
    MANUAL_RECOVERY = "manual_recovery"
    THRESHOLD_EXCEEDED = "threshold_exceeded"
    UNFINISHED_TURNS = "unfinished_turns"

    def __str__(self) -> str:
        return str(self.value)
