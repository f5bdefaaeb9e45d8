
BslopeJÕ·ø¼..