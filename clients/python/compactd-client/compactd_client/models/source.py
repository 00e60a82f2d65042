from enum import StrEnum


class Source(StrEnum):
    ASSISTANT = "assistant"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
