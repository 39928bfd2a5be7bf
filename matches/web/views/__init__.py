"""HTTP views: pages (home, start, demo) and the match table's actions."""
