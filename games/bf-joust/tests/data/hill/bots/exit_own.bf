leaves the tape at its own end after a while
(.)*300<
