from enum import StrEnum


class CacheLifeSource(StrEnum):
    DECLARED = "declared"
    DEFAULT = "default"
    OBSERVED = "observed"

    def __str__(self) -> str:
        return str(self.value)
