star minus one: wiggle the first cell for as long as the match lasts
>((+)*3(-)*3)*-1
