
BslopeJ
û¯i8Ê3q3Z¹