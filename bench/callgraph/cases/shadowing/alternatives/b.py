def h():
    return 'b'
