"""A class's answers: what a student's app sends the teacher's at a predict beat (``wire``),
checked against the lesson (``beats``), judged (``judging``), counted (``tally``), logged and
summed up after class (``log``, ``summary``)."""
