"""A whole group as one JSON document, and back: the archive another server imports.

export.py writes it; fields.py reads a file and its fields, checks.py and hands.py check a document
through and through, importing.py writes the new group.

`export_group(group)` reads the group in one snapshot and returns the document; `import_group(data)`
checks a document through and through, then writes a new group from it in one transaction (or
raises ArchiveError, saying what to fix, having written nothing). Exporting the imported group gives
the same document again: nothing in it depends on the server it came from.

Format "last-trick-group", version 1 (indexes are 0-based positions in the file's lists):

    {
      "format": "last-trick-group", "version": 1,
      "name": "Thursday club", "created_at": "2025-05-01T19:15:00.123456+00:00", "changed_at": "...",
      "time_zone": "Africa/Lome",                                 # "": the server's; may be left out
      "players": [{"name": "Aïcha", "left": false, "erased": false}, ...],      # in the order they joined
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
                    "corrected_by_seat": null, "stamp": "Qx9_ab12"}, ...]},
        ...]
    }

Times are ISO 8601 in UTC; each match is shown on the clock of its "time_zone" (an IANA name, the
zone of the phone that started it; "" for the server's own). Archives from before time zones were kept
have no "time_zone": "" then. A zone this server's time zone database does not know is read as "" too,
rather than refusing the group. Left out on purpose: the links (tokens are secrets of the server that
made them; an import gets new ones), database ids, and the `version` counters (they count one
server's changes, which phones poll against; an imported group and its matches start at 1). A
rematch link to a match outside the group (a match saved into the group after its rematch was
started elsewhere) is left out too (null): that match is not in the file.

Import trusts the file only where the models themselves keep history as it was: when and by whom
each hand was recorded or corrected, and who dealt a hand after one whose winner was corrected.
Everything the models derive is worked out again by the same rules and must agree: each hand's
points (from its winner and extra facts, which the game's own questions check) and dealer, the
seats' totals, wins and best runs, each hand's running totals and threshold, the match's threshold,
and whether its match end was reached. Moments lie between 2000 and the day after the import.
"""

from matches.services.archive.checks import checked_archive
from matches.services.archive.export import dumps, export_group
from matches.services.archive.fields import FORMAT, VERSION, ArchiveError, read_archive
from matches.services.archive.importing import import_group

__all__ = [
    "FORMAT",
    "VERSION",
    "ArchiveError",
    "checked_archive",
    "dumps",
    "export_group",
    "import_group",
    "read_archive",
]
