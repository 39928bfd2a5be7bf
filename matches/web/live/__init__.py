"""Live updates: each change of a sitting or group pushed to the phones showing it (Server-Sent Events).

`feeds` hears of changes (PostgreSQL LISTEN, Redis SUBSCRIBE, or reading versions on SQLite), `hub`
keeps who listens to what and renders each table region once per version and language, `streams`
are the async views that hold the phones' connections."""
