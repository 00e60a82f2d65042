from enum import StrEnum


class CacheLife(StrEnum):
    FIVE_MINUTES = "five_minutes"
    ONE_HOUR = "one_hour"

    def __str__(self) -> str:
        return str(self.value)
