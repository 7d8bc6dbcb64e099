"""The voila pages: one module per page job, their notebooks and template, and who is at a page."""
