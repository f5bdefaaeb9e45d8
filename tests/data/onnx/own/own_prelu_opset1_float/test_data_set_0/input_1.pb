BslopeJj>ð=êC\?2ˆ
½