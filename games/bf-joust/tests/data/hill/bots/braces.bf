nested brace form: build decoys going out, remove them coming back
(>(+)*9{(>)*4[-]>[-]}<(-)*3)%5
(>)*-1
