from enum import StrEnum


class Guard(StrEnum):
    FAILING = "failing"
    TOO_LITTLE_GAINED = "too_little_gained"
    TOO_MANY_TODAY = "too_many_today"
    TOO_SOON = "too_soon"

    def __str__(self) -> str:
        return str(self.value)
