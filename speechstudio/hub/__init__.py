"""Model store (Qt-free): catalog, Hugging Face download, imports (``<home>/models``), package models
(split ones joined in ``<home>/packages``); ``<home>`` is :func:`data_dir`."""
