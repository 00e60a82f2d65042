from enum import StrEnum


class ListDueMoment(StrEnum):
    IDLE = "idle"
    NEXT_MESSAGE = "next_message"

    def __str__(self) -> str:
        return str(self.value)
