"""Contains all the data models used in inputs/outputs"""

from .bucket import Bucket
from .cache_life import CacheLife
from .cache_life_source import CacheLifeSource
from .chat_message import ChatMessage
from .compaction import Compaction
from .compaction_trigger import CompactionTrigger
from .context import Context
from .conversation_compactions import ConversationCompactions
from .conversation_export import ConversationExport
from .conversation_export_compactions_item import ConversationExportCompactionsItem
from .conversation_export_conversation import ConversationExportConversation
from .conversation_export_events_item import ConversationExportEventsItem
from .conversation_export_keep_items_item import ConversationExportKeepItemsItem
from .conversation_export_preparations_item import ConversationExportPreparationsItem
from .conversation_export_turns_item import ConversationExportTurnsItem
from .conversation_list import ConversationList
from .conversation_state import ConversationState
from .critical_turn import CriticalTurn
from .decide_request import DecideRequest
from .decide_response import DecideResponse
from .decision_count import DecisionCount
from .decision_kind import DecisionKind
from .deleted_counts import DeletedCounts
from .deletion import Deletion
from .deletion_count import DeletionCount
from .due_conversation import DueConversation
from .due_response import DueResponse
from .event_view import EventView
from .events_page import EventsPage
from .fleet_compactions import FleetCompactions
from .get_keep_set_kind import GetKeepSetKind
from .guard import Guard
from .handoff_request import HandoffRequest
from .handoff_response import HandoffResponse
from .health import Health
from .invented_name import InventedName
from .keep_check_request import KeepCheckRequest
from .keep_check_response import KeepCheckResponse
from .keep_counts import KeepCounts
from .keep_counts_by_kind import KeepCountsByKind
from .keep_item_view import KeepItemView
from .keep_kind import KeepKind
from .keep_rate import KeepRate
from .keep_set_view import KeepSetView
from .kind_counts import KindCounts
from .list_compactions_trigger import ListCompactionsTrigger
from .list_due_moment import ListDueMoment
from .listed_conversation import ListedConversation
from .model_call import ModelCall
from .moment import Moment
from .money_figures import MoneyFigures
from .overflow import Overflow
from .pending_decision import PendingDecision
from .place_view import PlaceView
from .preparation_figures import PreparationFigures
from .problem import Problem
from .purge_view import PurgeView
from .quoted_request import QuotedRequest
from .reason import Reason
from .role import Role
from .savings_view import SavingsView
from .series_point import SeriesPoint
from .source import Source
from .standby_health import StandbyHealth
from .stats import Stats
from .stats_series import StatsSeries
from .summarize_request import SummarizeRequest
from .summarize_response import SummarizeResponse
from .summary import Summary
from .transcript_message import TranscriptMessage
from .transcript_tool_call import TranscriptToolCall
from .transcript_tool_call_arguments_type_1 import TranscriptToolCallArgumentsType1
from .trigger import Trigger
from .trigger_stats import TriggerStats
from .turn_ended_request import TurnEndedRequest
from .turn_ended_response import TurnEndedResponse
from .turn_view import TurnView
from .turns_page import TurnsPage
from .usage_request import UsageRequest
from .wasted_count import WastedCount
from .writer import Writer

__all__ = (
    "Bucket",
    "CacheLife",
    "CacheLifeSource",
    "ChatMessage",
    "Compaction",
    "CompactionTrigger",
    "Context",
    "ConversationCompactions",
    "ConversationExport",
    "ConversationExportCompactionsItem",
    "ConversationExportConversation",
    "ConversationExportEventsItem",
    "ConversationExportKeepItemsItem",
    "ConversationExportPreparationsItem",
    "ConversationExportTurnsItem",
    "ConversationList",
    "ConversationState",
    "CriticalTurn",
    "DecideRequest",
    "DecideResponse",
    "DecisionCount",
    "DecisionKind",
    "DeletedCounts",
    "Deletion",
    "DeletionCount",
    "DueConversation",
    "DueResponse",
    "EventsPage",
    "EventView",
    "FleetCompactions",
    "GetKeepSetKind",
    "Guard",
    "HandoffRequest",
    "HandoffResponse",
    "Health",
    "InventedName",
    "KeepCheckRequest",
    "KeepCheckResponse",
    "KeepCounts",
    "KeepCountsByKind",
    "KeepItemView",
    "KeepKind",
    "KeepRate",
    "KeepSetView",
    "KindCounts",
    "ListCompactionsTrigger",
    "ListDueMoment",
    "ListedConversation",
    "ModelCall",
    "Moment",
    "MoneyFigures",
    "Overflow",
    "PendingDecision",
    "PlaceView",
    "PreparationFigures",
    "Problem",
    "PurgeView",
    "QuotedRequest",
    "Reason",
    "Role",
    "SavingsView",
    "SeriesPoint",
    "Source",
    "StandbyHealth",
    "Stats",
    "StatsSeries",
    "SummarizeRequest",
    "SummarizeResponse",
    "Summary",
    "TranscriptMessage",
    "TranscriptToolCall",
    "TranscriptToolCallArgumentsType1",
    "Trigger",
    "TriggerStats",
    "TurnEndedRequest",
    "TurnEndedResponse",
    "TurnsPage",
    "TurnView",
    "UsageRequest",
    "WastedCount",
    "Writer",
)
