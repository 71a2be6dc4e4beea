package dev.ringmaster.sharder.survey;

/** A ring that cannot be surveyed as asked; the message is one line for a person. */
public class RingSurveyException extends Exception {

    private static final long serialVersionUID = 1L;

    public RingSurveyException(String message) {
        super(message);
    }
}
