"""Changes: the form, marks and staging, a batch's preview, the change log."""
