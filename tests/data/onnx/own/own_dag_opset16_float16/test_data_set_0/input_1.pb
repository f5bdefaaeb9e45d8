
BslopeJ
·‹®µq²v±