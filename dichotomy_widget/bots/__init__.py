"""Bot players: they play every role through the same checked actions as a person, deciding from
their own seat view only, and a practice mode where one person guesses while bots write.

    from dichotomy_widget.bots import practice_table
    table, me = practice_table("en", name="Ada", bots=2)
"""

from __future__ import annotations

from .bot import LEVELS, Bot, writer_index
from .driver import DEFAULT_PAUSE, BotDriver, add_bot, bot_token, check_playable, driver_for, resume_bots
from .knowledge import Knowledge, knowledge
from .practice import BOT_NAMES, personal_recap, practice_table
from .relations import NoRelations, RelationSource, default_source

__all__ = ["Bot", "LEVELS", "writer_index", "BotDriver", "add_bot", "resume_bots", "bot_token", "driver_for", "check_playable",
           "DEFAULT_PAUSE", "Knowledge", "knowledge", "practice_table", "personal_recap", "BOT_NAMES",
           "RelationSource", "NoRelations", "default_source"]
