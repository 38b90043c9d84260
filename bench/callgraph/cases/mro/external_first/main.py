import threading

from base import Base


class Worker(threading.Thread, Base):
    def go(self):
        return self.m()


Worker().go()
