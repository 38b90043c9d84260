class Worker:
    def __init__(self, job):
        self.job = job

    def work(self):
        return self.job()


class Record:
    def save(self):
        return True


def job():
    return 5


def process(item):
    return item.save()


Worker(job).work()
process(Record())
