"""Every fixed number and name the game uses, defined once.

Engine limits (checked by :mod:`~dichotomy_widget.rules`, :mod:`~dichotomy_widget.decks` and
:class:`~dichotomy_widget.Table`, and sent to the browser in every view as ``view["limits"]``),
environment variable names, and default names. Nothing here imports anything.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "MIN_SEATS", "MAX_SEATS", "MAX_CLUE_LENGTH", "MAX_GUESS_LENGTH", "MAX_NAME_LENGTH", "MAX_WORD_LENGTH",
    "PAIRS_PER_CARD", "MIN_TIME_LIMIT", "MAX_TIME_LIMIT", "DEFAULT_ROUNDS", "DEFAULT_DECK", "LIMITS",
    "MAX_DECK_BYTES", "MAX_DECK_ROWS", "MAX_TARGETS",
    "STORE_ENV", "SEAT_URL_ENV", "QUERY_ENV", "REQUEST_URL_ENV", "PG_BIN_ENV", "PG_RELAY_ENV", "TEACHER_KEY_ENV",
    "DECKS_DIR_ENV",
    "HUB_ENV", "HUB_SECRET_ENV", "HUB_SECRET_FILE_ENV", "HUB_HOST_GROUPS_ENV", "HUB_ADMINS_HOST_ENV",
    "HUB_IDENTITY_HEADER", "HUB_IDENTITY_ENV",
    "MEMORY_STORE_NAMES", "STORE_FILE_NAME", "DATA_DIR_NAME", "HOST_PAGE", "SEAT_PAGE",
    "TEACHER_PAGE", "CLASS_PAGE", "CLASS_VIEW_PAGE", "PROJECTOR_PAGE", "REPORT_PAGE", "TEACHER_PAGES",
    "KERNEL_MB", "POOL_KERNEL_MB", "DEFAULT_PAGES_PER_DEVICE", "DEFAULT_HOST_RESERVE", "DEFAULT_CONNECT_TIMEOUT",
    "KERNEL_MEMORY_SHARE", "MIN_DEFAULT_KERNELS", "FALLBACK_KERNELS",
    "PAGE_EXTENSIONS",
]

# --- game limits ---------------------------------------------------------------------------------
MIN_SEATS = 3
MAX_SEATS = 7
MAX_CLUE_LENGTH = 40
MAX_GUESS_LENGTH = 40
MAX_NAME_LENGTH = 24
MAX_WORD_LENGTH = 40  # a deck word
PAIRS_PER_CARD = 5
MIN_TIME_LIMIT = 5  # seconds per clue, when a table has a time limit
MAX_TIME_LIMIT = 3600
MIN_RECAP_TIME = 5  # seconds a recap stays, when a table has a recap countdown
DEFAULT_ROUNDS = 13
MAX_DECK_BYTES = 1_000_000  # a deck file, upload or pasted list (1 MB)
MAX_DECK_ROWS = 10_000  # target/foil rows in one deck (2,000 cards)
MAX_TARGETS = 100  # words in a one-column list given Foil suggestions (20 cards; a menu each in the form)
DEFAULT_DECK = "en"

#: The limits a browser needs (text box lengths, seat counts), as every view carries them.
LIMITS: dict[str, Any] = {
    "clue": MAX_CLUE_LENGTH, "guess": MAX_GUESS_LENGTH, "name": MAX_NAME_LENGTH,
    "min_seats": MIN_SEATS, "max_seats": MAX_SEATS,
    "min_time_limit": MIN_TIME_LIMIT, "max_time_limit": MAX_TIME_LIMIT, "min_recap_time": MIN_RECAP_TIME,
}

# --- environment variables -----------------------------------------------------------------------
#: The table store (path or URL) the voila pages use; ``dichotomy serve`` sets it for its kernels.
STORE_ENV = "DICHOTOMY_STORE"
#: Optional: the address of the seat page that join links point to.
SEAT_URL_ENV = "DICHOTOMY_SEAT_URL"
#: Set by voila for a page's kernel: the page's URL query, and its full URL.
QUERY_ENV = "QUERY_STRING"
REQUEST_URL_ENV = "VOILA_REQUEST_URL"
#: Optional: the teacher key creating a table needs (``dichotomy serve --teacher-key-file``).
TEACHER_KEY_ENV = "DICHOTOMY_TEACHER_KEY"
#: Optional: a folder of deck files the host page offers (``dichotomy serve --decks DIR``).
DECKS_DIR_ENV = "DICHOTOMY_DECKS_DIR"
#: Set by ``dichotomy serve`` for its kernels with a PostgreSQL store: the folder of the server's change
#: relay and connection slots (``stores/pg_relay.py``).
PG_RELAY_ENV = "DICHOTOMY_PG_RELAY"
#: Optional (tests): the folder with the PostgreSQL server binaries.
PG_BIN_ENV = "DICHOTOMY_PG_BIN"
#: JupyterHub service (docs/jupyterhub.md): ``1`` when the pages run behind the hub (set by hub-service),
HUB_ENV = "DICHOTOMY_HUB"
#: the service's signing secret, or a file holding it,
HUB_SECRET_ENV = "DICHOTOMY_HUB_SECRET"
HUB_SECRET_FILE_ENV = "DICHOTOMY_HUB_SECRET_FILE"
#: the hub groups whose members may host (comma separated), and ``0`` to stop hub admins hosting,
HUB_HOST_GROUPS_ENV = "DICHOTOMY_HUB_HOST_GROUPS"
HUB_ADMINS_HOST_ENV = "DICHOTOMY_HUB_ADMINS_HOST"
#: the request header with the signed hub identity, and its name in a page kernel's environment.
HUB_IDENTITY_HEADER = "X-Dichotomy-Identity"
HUB_IDENTITY_ENV = "HTTP_X_DICHOTOMY_IDENTITY"

# --- store names ---------------------------------------------------------------------------------
MEMORY_STORE_NAMES = frozenset({"", "memory", ":memory:", "memory://", "mem://"})
DATA_DIR_NAME = "dichotomy"  # platformdirs.user_data_dir(DATA_DIR_NAME)
STORE_FILE_NAME = "tables.sqlite3"

# --- page names (voila notebooks in pages/notebooks/) ----------------------------------------------------
HOST_PAGE = "host.ipynb"
SEAT_PAGE = "seat.ipynb"
TEACHER_PAGE = "teacher.ipynb"  # a class's control page (creating and running a class)
CLASS_PAGE = "class.ipynb"  # a student's class page (joins, then becomes the seat)
CLASS_VIEW_PAGE = "classview.ipynb"  # the class projector
PROJECTOR_PAGE = "projector.ipynb"  # one table's read-only projector
REPORT_PAGE = "report.ipynb"  # a class's report
#: Pages of the teacher: the kernel cap keeps room for them when students fill the server.
TEACHER_PAGES = (HOST_PAGE, TEACHER_PAGE)

#: The only JupyterLab extensions a voila page loads: the widget managers and anywidget. Any other
#: installed extension (e.g. Jupyter Notebook 7's lab-extension) is not needed by a page, costs
#: requests, and some fail outside their own app ("The getter for the shared module is not a function").
PAGE_EXTENSIONS = ("@jupyter-widgets/jupyterlab-manager", "@voila-dashboards/widgets-manager8", "anywidget")

# --- page bounds of ``dichotomy serve`` (server/bounds.py, docs/classroom.md) ------------------------
#: Memory of one page kernel in MB, for the default kernel cap: a seat or host page's kernel measured
#: 74-83 MB RSS (``python bench/flood.py``, 2-core Linux; a bare voila kernel is ~67 MB), rounded up.
KERNEL_MB = 80
#: Memory of one waiting pre-started kernel (``--expect``) in MB, for the pool's estimate: it has
#: imported the game and the widgets, loaded the default language's data and opened the store. 31 of
#: them and voila measured 2871 MB RSS (``python bench/join_burst.py``, 2-core Linux): 88 MB each.
POOL_KERNEL_MB = 90
DEFAULT_PAGES_PER_DEVICE = 4
DEFAULT_HOST_RESERVE = 2  # kernels of the cap only host pages may use
DEFAULT_CONNECT_TIMEOUT = 45.0  # seconds a sent page has to open its websocket
KERNEL_MEMORY_SHARE = 0.75  # share of the memory available at start-up page kernels may use by default
MIN_DEFAULT_KERNELS = 8  # the default cap never goes below this
FALLBACK_KERNELS = 40  # the default cap when the available memory cannot be read
