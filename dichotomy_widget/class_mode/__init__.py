"""Class mode, shaped like the table: a class aggregate (classroom.py) that executes the pure
decisions of decide.py over one table of legal class moves (moves.py) and folds them (state.py), its
pure views (views.py), seating and the cards each table plays."""
