"""compactd for LangChain 1.x agents: `CompactdMiddleware`."""

from compactd_langchain.middleware import CompactdMiddleware, CompactdState

__all__ = ["CompactdMiddleware", "CompactdState"]
