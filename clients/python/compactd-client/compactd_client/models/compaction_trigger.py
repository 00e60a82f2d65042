from enum import StrEnum


class CompactionTrigger(StrEnum):
    AGE_AND_TURNS = "age_and_turns"
    CONTEXT_PRESSURE = "context_pressure"
    EMERGENCY = "emergency"
    HARNESS = "harness"
    IDLE_CACHE_EXPIRY = "idle_cache_expiry"
    MANUAL = "manual"
    MANUAL_RECOVERY = "manual_recovery"
    THRESHOLD_EXCEEDED = "threshold_exceeded"
    UNFINISHED_TURNS = "unfinished_turns"

    def __str__(self) -> str:
        return str(self.value)
