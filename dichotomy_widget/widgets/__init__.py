"""The Jupyter widgets: the game's anywidgets and the small input widgets the pages use."""
