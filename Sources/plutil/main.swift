print("plutil")
