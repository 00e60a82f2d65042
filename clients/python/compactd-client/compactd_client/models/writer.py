from enum import StrEnum


class Writer(StrEnum):
    EXTRACTIVE = "extractive"
    HARNESS = "harness"
    LLM = "llm"

    def __str__(self) -> str:
        return str(self.value)
