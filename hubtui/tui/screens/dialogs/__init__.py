"""Dialogs every screen opens: questions, prompts, exports, the request log, help."""
