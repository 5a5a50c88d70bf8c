zeroes its own flag: the second check in a row with 0 loses
(-)*128(.)*9
