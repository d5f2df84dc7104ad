"""The phone web page (``xingzi serve``): FastAPI app in :mod:`xingzi.web.app`, page in ``static/``."""
