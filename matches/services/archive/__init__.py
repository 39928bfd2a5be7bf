"""A whole group as one JSON document and back: the archive another server imports.

export.py writes it; reading.py reads a file, checks.py and hands.py check it (fields.py: the field
readers), importing.py writes the group. `import_group(data)` writes in one transaction or raises
ArchiveError having written nothing; exporting the imported group gives the same document again.

Format "last-trick-group", version 1 (indexes are 0-based positions in the file's lists):

    {
      "format": "last-trick-group", "version": 1,
      "name": "Thursday club", "created_at": "2025-05-01T19:15:00.123456+00:00", "changed_at": "...",
      "time_zone": "Africa/Lome",                                 # "": the server's; may be left out
      "players": [{"name": "Aïcha", "left": false, "erased": false,             # in the order they joined
                   "changes": [{"verb": "renamed", "before": "Aicha", "after": "Aïcha",  # may be left out;
                                "by_phone": "k3Xa", "at": "..."}, ...]}, ...],    # oldest first
      "sittings": [                                                             # oldest first
        {"game": "cat-te", "end_kind": "hands", "end_target": 12,
         "starting_chips": 20, "stake_amount": null, "stake_label": "",
         "chips_reissued": 1, "reissued_before": [7], "threshold": null, "tied_at": null,
         "next_sitting": 3,                                   # its rematch, a later entry of "sittings"
         "started_at": "...", "changed_at": "...", "finished_at": "..." or null, "ended_how": "match-end",
         "time_zone": "Asia/Ho_Chi_Minh",                     # its table's clock; may be left out
         "seats": [{"player": 0, "total": 5, "hands_won": 2, "best_run": 1}, ...],   # in playing order
         "hands": [{"number": 1, "status": "won", "winner": 2, "dealer_position": 0,  # winner: a seat
                    "extras": {"how": "sweep", "aces": [1]}, "points": [-3, -2, 5], "running": [-3, -2, 5],
                    "threshold_after": null, "recorded_at": "...", "recorded_by_phone": "k3Xa",
                    "recorded_by_seat": 2, "corrected_at": null, "corrected_by_phone": "",
                    "corrected_by_seat": null, "stamp": "Qx9_ab12"}, ...],
         "receipts": [{"verb": "correct", "number": 5, "by_phone": "k3Xa", "by_seat": 2, "at": "...",  # may be
                       "before": {"winner": 0, "extras": {}, "points": [1, 0, 0]}, "after": {...},  # left out
                       "last": 9}, ...]},                    # what each change did, in the order made
        ...]
    }

Times are ISO 8601 UTC. A missing or unknown "time_zone" reads as "" (the server's). Left out on
purpose: links (tokens are the exporting server's secrets), database ids and `version` counters
(imports start at 1), and a rematch link to a match outside the group (null).

Import trusts only the history the models keep as it was (when and by whom hands were recorded or
corrected; the dealer after a corrected winner). Everything derived (points, dealers, totals, wins,
best runs, running totals, thresholds, match end) is recomputed by the same rules and must agree.
Moments lie between 2000 and the day after the import. A group's size is bounded as on this server
(matches.domain.capacity: players, matches, hands per match and per group; the file's bytes, its
numbers' digits, its nesting); text holds no null character and no lone surrogate (no database keeps them).
"""

from matches.services.archive.checks import checked_archive
from matches.services.archive.export import dumps, export_group
from matches.services.archive.fields import FORMAT, VERSION, ArchiveError
from matches.services.archive.importing import AlreadyHere, import_group
from matches.services.archive.reading import read_archive, too_big_message

__all__ = [
    "AlreadyHere",
    "FORMAT",
    "VERSION",
    "ArchiveError",
    "checked_archive",
    "dumps",
    "export_group",
    "import_group",
    "read_archive",
    "too_big_message",
]
