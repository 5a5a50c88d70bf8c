an empty program: it waits for ever
