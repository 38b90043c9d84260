from .core import make
