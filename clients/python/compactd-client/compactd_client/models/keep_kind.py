from enum import StrEnum


class KeepKind(StrEnum):
    COMMAND = "command"
    FILE_CHANGED = "file_changed"
    ID = "id"
    PATH = "path"
    PROHIBITION = "prohibition"
    QUANTITY = "quantity"
    REQUEST = "request"
    URL = "url"

    def __str__(self) -> str:
        return str(self.value)
