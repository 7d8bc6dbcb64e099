"""Class mode, shaped like the table: a class aggregate (classroom.py) over one table of legal
class moves (moves.py), its pure views (views.py), seating and the cards each table plays."""
