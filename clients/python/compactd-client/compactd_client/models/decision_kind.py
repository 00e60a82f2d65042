from enum import StrEnum


class DecisionKind(StrEnum):
    COMPACT = "compact"
    KEEP = "keep"
    ROLLOVER = "rollover"

    def __str__(self) -> str:
        return str(self.value)
