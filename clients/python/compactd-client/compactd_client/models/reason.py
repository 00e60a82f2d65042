from enum import StrEnum


class Reason(StrEnum):
    ANCHOR_CHANGED = "anchor_changed"
    BUDGET = "budget"
    COMPACTED_FIRST = "compacted_first"
    CUT_INSIDE = "cut_inside"
    DELTA_TOO_BIG = "delta_too_big"
    EXPIRED = "expired"
    HARNESS_SUMMARY = "harness_summary"
    MESSAGES_DIFFER = "messages_differ"
    ROLLED_OVER = "rolled_over"
    SUPERSEDED = "superseded"
    UPSTREAM = "upstream"

    def __str__(self) -> str:
        return str(self.value)
