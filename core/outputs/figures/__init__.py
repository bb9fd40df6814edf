"""Figures for slides and papers as standalone SVG (issue 45): a small writer that escapes every
piece of text (``svg``), the colour maps the figures share with the app (``colour_maps``) and
the heat map of any stage of the registry (``heat_map``). Pure text: no dependency beyond NumPy.
"""
