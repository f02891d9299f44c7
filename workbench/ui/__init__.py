"""Streamlit glue shared by app.py and the pages: cached resources and the sidebar selection.

Pages stay thin: they read the selection from here, call the core, and render its values.
"""
