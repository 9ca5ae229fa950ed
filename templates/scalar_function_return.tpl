    return result;
