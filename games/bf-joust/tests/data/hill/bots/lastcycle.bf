waits almost the whole match, then steps off its own end
(.)*99999<
