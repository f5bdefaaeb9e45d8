
*ÿæËu€fBslope