from enum import StrEnum


class Moment(StrEnum):
    IDLE = "idle"
    NEXT_MESSAGE = "next_message"
    TURN_END = "turn_end"

    def __str__(self) -> str:
        return str(self.value)
