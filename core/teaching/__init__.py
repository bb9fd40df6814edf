"""A student's numbers against attention, predictions, known mistakes, the patterns heads show."""
