"""What a student reads: lessons, predictions, worksheets and handouts, explanations, pattern
scores, check my implementation."""
