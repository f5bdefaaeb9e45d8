
BslopeJD5Ù¸´